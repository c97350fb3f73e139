import { render } from 'preact';
import { App } from './app';
import { registerServiceWorker } from './pwa';
import { trackViewport } from './viewport';
import './styles.css';

trackViewport();

render(<App />, document.getElementById('app')!);
registerServiceWorker();
