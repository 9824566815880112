// A drop's thumbnail: the desktop screenshot of its latest render check (1280×800, shown at a
// quarter), linking to the full-size PNG. Used by the operators' queue (/admin).
export function DropThumbnail({ src, url }: { src: string; url: string }) {
  return (
    <a href={src} data-testid="drop-thumbnail">
      {/* A fixed-size PNG from the app's own host: nothing for next/image to optimise. */}
      {/* eslint-disable-next-line @next/next/no-img-element */}
      <img
        className="render-thumb"
        src={src}
        alt={`Screenshot of ${url} in a browser at 1280×800`}
        width={320}
        height={200}
        loading="lazy"
      />
    </a>
  );
}
