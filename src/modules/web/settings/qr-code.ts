import { encode } from 'uqr';

/**
 * A QR code as an SVG `data:` address for an `<img>`: drawn here, on the server, so the secret it
 * carries never leaves for a third-party service, and no script is needed (the CSP allows `data:`
 * images only). Black on white with the standard four-module quiet zone, whatever the page's theme, so
 * every camera reads it.
 */
export function qrCodeDataUri(text: string): string {
  const { data, size } = encode(text, { ecc: 'M', border: 4 });
  let path = '';
  data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) path += `M${x} ${y}h1v1h-1z`;
    });
  });
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
