/**
 * An answer's body as text, read to its end or to `maxBytes` and a chunk, whichever comes
 * first: past the bound the rest is not read (leaving the loop destroys the stream, and the
 * connection with it). Decoded as `Response.text()` does (UTF-8, a replacement character for
 * bytes that are none, a leading byte-order mark dropped).
 */
export async function readBody(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    text += decoder.decode(chunk, { stream: true });
    if (bytes > maxBytes) return text;
  }
  return text + decoder.decode();
}
