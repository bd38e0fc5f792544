// @ts-check
// What the pictures share (timeline-svg.js, capacity-svg.js): escaping, rounding, axis steps, the
// palette, the legend and the heading. Not an API of its own: the two pictures are, and they
// keep the same look by drawing these parts here.

/** Text from the data, safe inside an element or an attribute. @param {unknown} text */
export function esc(text) {
  return String(text).replace(/[&<>"']/g, function (c) {
    return c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;';
  });
}

/** A coordinate to a tenth of a pixel, so that the SVG text stays short. @param {number} n */
export function r1(n) {
  return Math.round(n * 10) / 10;
}

/** A round step for an axis spanning `span` with about `count` ticks. @param {number} span @param {number} count */
export function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const power = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

export const COLOURS = {
  admitted: '#1a7f37',
  refused: '#cf222e',
  other: '#6e7781',
  remaining: '#0969da',
  retry: '#d4a72c',
  ban: '#8250df',
  boundary: '#57606a',
  must: '#cf222e',
  should: '#9a6700',
  p95: '#bf8700',
  p99: '#cf222e',
};

/**
 * What follows a picture's root element: its <title>, a white background and the title written
 * at the top left, at `left`.
 * @param {string} title
 * @param {number} width
 * @param {number} height
 * @param {number} left
 */
export function headingSvg(title, width, height, left) {
  return (
    '<title>' +
    esc(title) +
    '</title>' +
    '<rect x="0" y="0" width="' +
    width +
    '" height="' +
    height +
    '" fill="#ffffff"/>' +
    '<text x="' +
    left +
    '" y="16" font-size="13" font-weight="bold" fill="#1f2328">' +
    esc(title) +
    '</text>'
  );
}

/** A picture with nothing to draw says so, and ends. @param {string} message @param {number} left @param {number} height */
export function emptySvg(message, left, height) {
  return '<text x="' + left + '" y="' + height / 2 + '" fill="#6e7781">' + message + '</text></svg>';
}

/**
 * A row of legend entries (a swatch and its name, 84 px each), ending at `right`. A swatch is filled
 * with its colour, or with 'hollow' after the colour only outlined in it, dashed.
 * @param {string} cls
 * @param {string[][]} entries [name, colour, 'hollow'?]
 * @param {number} right
 */
export function legendSvg(cls, entries, right) {
  let x = right - entries.length * 84;
  let svg = '';
  for (const [name, colour, style] of entries) {
    svg +=
      '<rect class="' +
      cls +
      '" x="' +
      x +
      '" y="24" width="10" height="10" ' +
      (style === 'hollow' ? 'fill="#ffffff" stroke="' + colour + '" stroke-width="1.5" stroke-dasharray="2 1.5"' : 'fill="' + colour + '"') +
      '/><text x="' +
      (x + 14) +
      '" y="33" fill="#1f2328">' +
      name +
      '</text>';
    x += 84;
  }
  return svg;
}
