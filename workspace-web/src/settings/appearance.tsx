// Settings → Appearance: theme, text size and density for this browser (appearance.ts), applied as they are chosen.
import { useEffect, useState } from 'preact/hooks';
import {
  appearance, onAppearance, setAppearance, DENSITIES, TEXT_SIZES, THEMES, type Appearance,
} from '../appearance';

const LABELS: Record<string, string> = {
  system: 'As the system', light: 'Light', dark: 'Dark',
  small: 'Small', normal: 'Normal', large: 'Large',
  comfortable: 'Comfortable', compact: 'Compact',
};

function Choice<K extends keyof Appearance>({ name, legend, values, value, hint }: {
  name: K; legend: string; values: Appearance[K][]; value: Appearance[K]; hint: string;
}) {
  return (
    <fieldset class="stack">
      <legend>{legend}</legend>
      <div class="row" role="radiogroup" aria-label={legend}>
        {values.map((v) => (
          <label key={v} class="row choice">
            <input type="radio" name={name} value={v} checked={value === v}
              onChange={() => setAppearance({ [name]: v } as Partial<Appearance>)} /> {LABELS[v]}
          </label>
        ))}
      </div>
      <p class="muted small">{hint}</p>
    </fieldset>
  );
}

export default function AppearancePage() {
  const [a, setA] = useState<Appearance>(appearance());
  useEffect(() => onAppearance(setA), []);
  return (
    <div class="stack appearance">
      <p class="muted">For this browser: another device keeps its own choice. Changes apply at once.</p>
      <Choice name="theme" legend="Theme" values={THEMES} value={a.theme}
        hint="As the system follows the light or dark setting of the device, also when it changes." />
      <Choice name="textSize" legend="Text size" values={TEXT_SIZES} value={a.textSize}
        hint="The size of the text everywhere, the terminal's included." />
      <Choice name="density" legend="Density" values={DENSITIES} value={a.density}
        hint="Compact fits more lines on the screen with smaller buttons and spacing." />
      <div class="panel appearance-sample" role="group" aria-label="Sample">
        <p>A sample: the text of a message, <code>some code</code>, and <span class="muted">a quieter line</span>.</p>
        <div class="row"><button class="primary" type="button">A button</button><button type="button">Another</button></div>
      </div>
    </div>
  );
}
