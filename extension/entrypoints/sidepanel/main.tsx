// The side panel entry: renders the Preact UI (lib/panel.tsx) for the tab the panel drives.
import { render } from 'preact';
import { Panel } from '../../lib/panel.tsx';

const root = document.getElementById('app');
if (root) render(<Panel />, root);
