// Entry of the lazily loaded demo bundle (dist/demo.cjs): the reference backend
// that "Open Demo" starts inside the extension host.
export { startReferenceBackend } from './server.ts';
