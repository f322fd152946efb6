/** The inspector page (docs/inspector.md): where its built assets are. */
import { type Setting, text } from './settings.ts';

export const INSPECTOR_ASSETS_DIR = {
  name: 'INSPECTOR_ASSETS_DIR',
  doc: 'The folder of the built inspector page (index.html, assets/). The local hub builds the page and sets it.',
  format: () => text('a folder path'),
  defaultText: 'the folder `inspector` beside the function bundle (where the CDK stack puts it)',
  readBy: ['inspector'],
} satisfies Setting<string>;
