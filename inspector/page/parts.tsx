/**
 * Message and artifact parts: text as text (never HTML), data as a JSON tree, files with inline bytes as
 * an image preview (image/*) or a download link through a blob URL, files by URL as a link only (the page
 * fetches nothing from another origin).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Part } from './a2a.ts';
import { JsonTree } from './json-tree.tsx';

function blobOf(raw: string, mediaType: string): Blob | undefined {
  try {
    const bin = atob(raw);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Blob([bytes], { type: mediaType });
  } catch {
    return undefined;
  }
}

const SAFE_IMAGE = /^image\/(png|jpeg|gif|webp|avif|bmp)$/i;

function RawFile({ part }: { part: Part & { raw: string } }) {
  const mediaType = part.mediaType ?? 'application/octet-stream';
  const [url, setUrl] = useState<string | undefined>();
  const [bad, setBad] = useState(false);
  useEffect(() => {
    const blob = blobOf(part.raw, mediaType);
    if (!blob) {
      setBad(true);
      return;
    }
    const u = URL.createObjectURL(blob);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [part.raw, mediaType]);
  const name = part.filename ?? 'file';
  const size = Math.floor((part.raw.length * 3) / 4);
  if (bad) return <p class="part-file">{name}: the bytes are not valid base64</p>;
  if (!url) return null;
  return (
    <div class="part-file">
      {SAFE_IMAGE.test(mediaType) ? (
        <img src={url} alt={part.filename ?? 'image part'} class="part-img" />
      ) : null}
      <a href={url} download={name}>
        Download {name}
      </a>{' '}
      <span class="muted">
        ({mediaType}, {size.toLocaleString()} bytes)
      </span>
    </div>
  );
}

export function PartView({ part }: { part: Part }) {
  if (typeof part.text === 'string') return <p class="part-text">{part.text}</p>;
  if (typeof part.raw === 'string') return <RawFile part={part as Part & { raw: string }} />;
  if (typeof part.url === 'string') {
    const safe = /^https?:/i.test(part.url);
    return (
      <p class="part-file">
        File {part.filename ? <strong>{part.filename}</strong> : null}{' '}
        {safe ? (
          <a href={part.url} target="_blank" rel="noopener noreferrer">
            open {part.url}
          </a>
        ) : (
          <code>{part.url}</code>
        )}{' '}
        {part.mediaType ? <span class="muted">({part.mediaType})</span> : null}
      </p>
    );
  }
  if (part.data !== undefined) return <JsonTree value={part.data} label="data part" />;
  return <JsonTree value={part} label="part" open={0} />;
}

export function PartsView({ parts }: { parts: readonly Part[] | undefined }) {
  if (!parts?.length) return null;
  return (
    <div class="parts">
      {parts.map((p, i) => (
        <PartView key={i} part={p} />
      ))}
    </div>
  );
}
