// Hostile WebSocket clients for the relay fault tests: they live in bench/ because the relay
// placement benchmark (bench/relay-placement.ts) floods the relay the same way.
export { flood, frameHeader, rawUpgrade, rssMb, textFrame, type FloodOptions, type FloodReport, type Upgrade } from "../../bench/hostile-clients.js";
