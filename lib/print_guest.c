// SPDX-License-Identifier: GPL-2.0
/*
 * A small vsnprintf for guest code: %d %i %u %x %X %p %s %c %%, with l/ll/z
 * length modifiers, a minimum width and '0' padding.  Freestanding.
 */
#include "ucall.h"

struct out {
	char *buf;
	int len, pos;
};

static void put(struct out *o, char c)
{
	if (o->pos + 1 < o->len)
		o->buf[o->pos] = c;
	o->pos++;
}

static void put_num(struct out *o, uint64_t v, int base, int upper, int neg, int width, char pad)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	if (neg)
		tmp[n++] = '-';
	while (width-- > n)
		put(o, pad);
	while (n)
		put(o, tmp[--n]);
}

int guest_vsnprintf(char *buf, int len, const char *fmt, va_list ap)
{
	struct out o = { buf, len, 0 };

	for (; *fmt; fmt++) {
		int lng = 0, width = 0;
		char pad = ' ';
		uint64_t u;
		int64_t s;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		if (*fmt == '0') {
			pad = '0';
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l' || *fmt == 'z') {
			lng++;
			fmt++;
		}
		switch (*fmt) {
		case 'd':
		case 'i':
			s = lng ? va_arg(ap, int64_t) : va_arg(ap, int);
			put_num(&o, s < 0 ? -(uint64_t)s : (uint64_t)s, 10, 0, s < 0, width, pad);
			break;
		case 'u':
		case 'x':
		case 'X':
			u = lng ? va_arg(ap, uint64_t) : va_arg(ap, unsigned int);
			put_num(&o, u, *fmt == 'u' ? 10 : 16, *fmt == 'X', 0, width, pad);
			break;
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_num(&o, (uint64_t)va_arg(ap, void *), 16, 0, 0, width, pad);
			break;
		case 's': {
			const char *str = va_arg(ap, const char *);

			if (!str)
				str = "(null)";
			while (*str)
				put(&o, *str++);
			break;
		}
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case '%':
			put(&o, '%');
			break;
		default:	/* unknown conversion: print it as is */
			put(&o, '%');
			if (*fmt)
				put(&o, *fmt);
			else
				fmt--;
		}
	}
	if (len > 0)
		buf[o.pos < len ? o.pos : len - 1] = 0;
	return o.pos;
}

int guest_snprintf(char *buf, int len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = guest_vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n;
}
