# SPDX-License-Identifier: GPL-2.0
# Small line plots written as SVG, log-log for make bench's cost curves
# (scripts/lib/bench_curves.py), linear for the tuning series
# (scripts/lib/bench_tuning.py): no plotting library, so the images are
# the same text on every machine and diff well.
#
#   svg = loglog("kdamond CPU against the sample rate", "samples/s",
#                "ms per s", [("damon_perf", [(x, y), ...]), ...])
import math

W, H = 620, 340
LEFT, RIGHT, TOP, BOTTOM = 70, 190, 40, 50
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]


def _decades(lo, hi):
    """Powers of ten spanning [lo, hi]."""
    a = math.floor(math.log10(lo))
    b = math.ceil(math.log10(hi))
    if a == b:
        b += 1
    return a, b


def _fmt(e):
    v = 10 ** e
    if 0 <= e <= 4:
        return "%d" % v
    if -3 <= e < 0:
        return ("%.3f" % v).rstrip("0")
    return "1e%d" % e


def _esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _ticks(lo, hi):
    """About five round linear ticks spanning [lo, hi]."""
    span = (hi - lo) or 1.0
    step = 10 ** math.floor(math.log10(span / 5))
    for m in (1, 2, 5, 10):
        if span / (step * m) <= 6:
            step *= m
            break
    t = math.floor(lo / step) * step
    out = []
    while t <= hi + step / 2:
        out.append(t)
        t += step
    return out


def loglog(title, xlabel, ylabel, series):
    """SVG text of SERIES [(name, [(x, y)...])] on log-log axes."""
    return plot(title, xlabel, ylabel, series, log=True)


def lines(title, xlabel, ylabel, series, ylo=None, yhi=None):
    """SVG text of SERIES [(name, [(x, y)...])] on linear axes; the y
    axis spans YLO..YHI when given (a share: 0, 1)."""
    return plot(title, xlabel, ylabel, series, log=False, ylo=ylo, yhi=yhi)


def plot(title, xlabel, ylabel, series, log, ylo=None, yhi=None):
    """SVG text of SERIES on log-log (LOG) or linear axes."""
    if log:
        pts = [(x, y) for _, s in series for x, y in s if x > 0 and y > 0]
    else:
        pts = [(x, y) for _, s in series for x, y in s]
    if not pts:
        return None
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    if log:
        xa, xb = _decades(min(p[0] for p in pts), max(p[0] for p in pts))
        ya, yb = _decades(min(p[1] for p in pts), max(p[1] for p in pts))
        xt = [(10 ** e, _fmt(e)) for e in range(xa, xb + 1)]
        yt = [(10 ** e, _fmt(e)) for e in range(ya, yb + 1)]
        fx, fy = math.log10, math.log10
    else:
        xs = _ticks(min(p[0] for p in pts), max(p[0] for p in pts))
        ys = _ticks(min(p[1] for p in pts) if ylo is None else ylo,
                    max(p[1] for p in pts) if yhi is None else yhi)
        xa, xb, ya, yb = xs[0], xs[-1], ys[0], ys[-1]
        xt = [(t, "%g" % t) for t in xs]
        yt = [(t, "%g" % t) for t in ys]
        fx = fy = float

    def px(x):
        return LEFT + (fx(x) - fx(xt[0][0])) / \
            ((fx(xt[-1][0]) - fx(xt[0][0])) or 1) * pw

    def py(y):
        return TOP + ph - (fy(y) - fy(yt[0][0])) / \
            ((fy(yt[-1][0]) - fy(yt[0][0])) or 1) * ph

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">'
           % (W, H, W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="22" font-size="14">%s</text>' % (LEFT, _esc(title))]
    for v, label in xt:
        x = px(v)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   % (x, TOP, x, TOP + ph))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (x, TOP + ph + 16, label))
    for v, label in yt:
        y = py(v)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (LEFT, y, LEFT + pw, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                   % (LEFT - 6, y + 4, label))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
               'stroke="black"/>' % (LEFT, TOP, pw, ph))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
               % (LEFT + pw / 2, H - 12, _esc(xlabel)))
    out.append('<text x="16" y="%.1f" text-anchor="middle" '
               'transform="rotate(-90 16 %.1f)">%s</text>'
               % (TOP + ph / 2, TOP + ph / 2, _esc(ylabel)))
    for i, (name, s) in enumerate(series):
        c = COLOURS[i % len(COLOURS)]
        s = sorted((x, y) for x, y in s if not log or (x > 0 and y > 0))
        if not s:
            continue
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" '
                   'points="%s"/>' % (c, " ".join("%.1f,%.1f" % (px(x), py(y))
                                                   for x, y in s)))
        for x, y in s:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>'
                       % (px(x), py(y), c))
        ly = TOP + 14 + 18 * i
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" '
                   'stroke-width="2"/>' % (LEFT + pw + 10, ly - 4,
                                           LEFT + pw + 30, ly - 4, c))
        out.append('<text x="%d" y="%d">%s</text>'
                   % (LEFT + pw + 34, ly, _esc(name)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def slope(points):
    """Least-squares exponent b of y = a x^b over POINTS, or None."""
    p = [(math.log(x), math.log(y)) for x, y in points if x > 0 and y > 0]
    if len(p) < 2:
        return None
    mx = sum(a for a, _ in p) / len(p)
    my = sum(b for _, b in p) / len(p)
    sxx = sum((a - mx) ** 2 for a, _ in p)
    if not sxx:
        return None
    return sum((a - mx) * (b - my) for a, b in p) / sxx
