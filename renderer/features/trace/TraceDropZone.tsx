/**
 * Drag-and-drop of a trace file anywhere on the window: the file is streamed to the host in
 * chunks (useOpenTrace) and opened as a read-only trace session. While a file is dragged over
 * the window an overlay says where it goes; the upload's progress shows at the bottom.
 */
import { type ReactElement, useEffect, useState } from 'react';
import { UploadProgress } from './OpenTracePanel';
import { useOpenTrace } from './useOpenTrace';

function hasFiles(e: DragEvent): boolean {
  return [...(e.dataTransfer?.types ?? [])].includes('Files');
}

export function TraceDropZone(): ReactElement {
  const { progress, openFile } = useOpenTrace();
  const [over, setOver] = useState(false);
  useEffect(() => {
    let depth = 0;
    const onEnter = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      depth += 1;
      setOver(true);
    };
    const onLeave = (): void => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const onOver = (e: DragEvent): void => {
      if (hasFiles(e)) e.preventDefault(); // allows the drop
    };
    const onDrop = (e: DragEvent): void => {
      depth = 0;
      setOver(false);
      const file = e.dataTransfer?.files[0];
      if (!file) return;
      e.preventDefault(); // never let the browser navigate to the file
      void openFile(file);
    };
    window.addEventListener('dragenter', onEnter);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('dragover', onOver);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragenter', onEnter);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('drop', onDrop);
    };
  }, [openFile]);
  const busy = progress && (progress.state === 'uploading' || progress.state === 'opening');
  return (
    <>
      {over ? (
        <div className="drop-overlay" data-testid="drop-overlay">
          Drop a Pipescope trace (.jsonl) to open it read-only
        </div>
      ) : null}
      {busy || progress?.state === 'failed' ? (
        <div className="drop-progress">
          <UploadProgress progress={progress} />
        </div>
      ) : null}
    </>
  );
}
