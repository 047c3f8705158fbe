import jsqr from 'jsqr';
import { describe, expect, it } from 'vitest';
import { qrCodeDataUri } from './qr-code.js';

// A CommonJS package typed as an ES module: its function is the default export's `default`.
const jsQR = jsqr.default;

/** Paints the SVG's modules (its unit squares) into RGBA pixels, `scale` pixels a module, as a screen would. */
function rasterize(dataUri: string, scale = 4): { data: Uint8ClampedArray; width: number } {
  const svg = Buffer.from(dataUri.replace('data:image/svg+xml;base64,', ''), 'base64').toString();
  const size = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
  const width = size * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  const path = /<path d="([^"]*)" fill="#000"\/>/.exec(svg)?.[1] ?? '';
  for (const [, x, y] of path.matchAll(/M(\d+) (\d+)h1v1h-1z/g)) {
    for (let dy = 0; dy < scale; dy++) {
      for (let dx = 0; dx < scale; dx++) {
        const offset = ((Number(y) * scale + dy) * width + Number(x) * scale + dx) * 4;
        data.fill(0, offset, offset + 3);
      }
    }
  }
  return { data, width };
}

describe('QR codes', () => {
  it('draw a code a reader decodes back to the exact text', () => {
    const uri =
      'otpauth://totp/cinelog:alice?issuer=cinelog&secret=PPIYL5Y74CSJSPJVIOWA4A4EFTCV5VED&algorithm=SHA1&digits=6&period=30';
    const image = qrCodeDataUri(uri);
    expect(image).toMatch(/^data:image\/svg\+xml;base64,/);
    const { data, width } = rasterize(image);
    expect(jsQR(data, width, width)?.data).toBe(uri);
  });

  it('are black on white with a quiet zone, and nothing a content security policy would block', () => {
    const svg = Buffer.from(qrCodeDataUri('hello').split(',')[1]!, 'base64').toString();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 \d+ \d+"/);
    expect(svg).toContain('<rect width="29" height="29" fill="#fff"/>');
    // Four light modules around the code: no square starts in the border.
    for (const [, x, y] of svg.matchAll(/M(\d+) (\d+)/g)) {
      expect(Number(x)).toBeGreaterThanOrEqual(4);
      expect(Number(y)).toBeLessThan(25);
    }
    expect(svg).not.toMatch(/style|script|href/);
  });
});
