// Types of the module the console serves at vendor/preact.js: preact's own ES module (console-assets.ts).
export * from 'preact';
