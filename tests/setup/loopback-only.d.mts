// Types of tests/setup/loopback-only.mjs (plain JavaScript, so NODE_OPTIONS can load it anywhere).
export declare function isLoopbackHost(host: string): boolean;
export declare function connectTarget(args: readonly unknown[]): { readonly path: string } | { readonly host: string; readonly port: unknown };
export declare function takeRefusedConnections(): string[];
