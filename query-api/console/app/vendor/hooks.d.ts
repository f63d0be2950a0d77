// Types of the module the console serves at vendor/hooks.js: preact/hooks, importing ./preact.js.
export * from 'preact/hooks';
