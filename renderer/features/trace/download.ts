/**
 * Saves text the host produced (an export) as a file: a Blob and an `<a download>` click. In
 * browser mode that is a download; in Electron the same click opens the save dialog (Electron
 * asks where to save any download without a preset path).
 */
export function downloadText(fileName: string, mime: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked after the click was handled (revoking at once can cancel the download).
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
