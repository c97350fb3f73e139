import { render } from 'preact';
import { App } from './app';
import { registerServiceWorker } from './pwa';
import { trackViewport } from './viewport';
import { installAppearance } from './appearance';
import './styles.css';

installAppearance();
trackViewport();

render(<App />, document.getElementById('app')!);
registerServiceWorker();
