import type { ReactElement } from 'react';
import { type HostProfileId, isHostProfileId } from '../../../shared/host-profiles';
import { PROFILE_OPTIONS, profileSummary } from './host-profile-view';

/**
 * Which host a session behaves like (`hostProfile` in the start options, `--host` on the CLI):
 * its limits fill what the form leaves to the defaults, and the audit measures against them.
 */
export function HostProfileSelect({
  value,
  onChange,
  testId,
}: {
  value: HostProfileId | null;
  onChange(value: HostProfileId | null): void;
  testId: string;
}): ReactElement {
  return (
    <div className="host-profile">
      <label className="control">
        <span className="control-label">host profile</span>
        <select
          value={value ?? ''}
          data-testid={testId}
          onChange={(e) => onChange(isHostProfileId(e.target.value) ? e.target.value : null)}
        >
          {PROFILE_OPTIONS.map((o) => (
            <option key={o.id} value={o.id}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      <span className="muted small-text" data-testid={`${testId}-summary`}>
        {value
          ? profileSummary(value)
          : 'Pipescope’s own limits: 128 MiB line cap, 1 MiB result budget.'}
      </span>
    </div>
  );
}
