// The dashboard's tests drive the same Chromium as its figures (bench/browser.ts).
export { CHROMIUM, launchBrowser, type TestBrowser } from "../../bench/browser.js";
