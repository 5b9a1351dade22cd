// The console's web UI: mounts the app into index.html's #app.
import { render } from 'preact';
import { App } from './app.tsx';

const root = document.getElementById('app');
if (root !== null) {
  root.textContent = '';
  render(<App />, root);
}
