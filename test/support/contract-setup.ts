// Vitest setup file of the HTTP suites: every response of a test service is checked against its document.
import { installContractCheckingFetch } from './contract-fetch.ts';

installContractCheckingFetch();
