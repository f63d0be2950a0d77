// Types of the module the console serves at vendor/htm.js: htm's ES module.
export { default } from 'htm';
