// A QR code drawn as SVG rectangles (qrcode-generator computes the modules; nothing is injected as HTML).
import qrcode from 'qrcode-generator';

export function Qr({ text, label }: { text: string; label: string }) {
  const q = qrcode(0, 'M');
  q.addData(text);
  q.make();
  const n = q.getModuleCount();
  let d = '';
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (q.isDark(r, c)) d += `M${c + 2} ${r + 2}h1v1h-1z`;
  return (
    <svg class="qr" viewBox={`0 0 ${n + 4} ${n + 4}`} role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={n + 4} height={n + 4} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
