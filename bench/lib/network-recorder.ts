/**
 * bench:site's recorder of the bytes a page moves: every request of every page and dedicated worker
 * of a Chromium, over the DevTools protocol on a connection of its own, each with its size on the
 * wire, its encoding and the phase of the measurement it fell in.
 */
export interface Transfer {
  url: string;
  target: string;
  type?: string;
  status?: number;
  encoding?: string;
  mime?: string;
  started_s: number;
  finished_s?: number;
  bytes?: number;
  failed?: string;
  contentLength?: number;
  /** CDP counted only the headers (a dedicated worker's script): its Content-Length is added. */
  headersOnly?: boolean;
  phase: string;
}

/**
 * Every request of every page and dedicated worker of the browser, from CDP's Network domain on a
 * connection of its own (flat sessions auto-attached to each page and worker as it starts, held
 * until Network is enabled on it, so the worker's first request is not missed).
 */
export async function networkRecorder(wsUrl: string) {
  const ws = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let nextId = 1;
  const pending = new Map<number, (result: unknown) => void>();
  const transfers = new Map<string, Transfer>();
  let phase = 'idle';
  const send = (method: string, params: object = {}, sessionId?: string): Promise<unknown> => {
    const id = nextId++;
    ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return new Promise((resolve) => pending.set(id, resolve));
  };
  const autoAttach = { autoAttach: true, waitForDebuggerOnStart: true, flatten: true };
  const targets = new Map<string, string>();
  const attaching = new Set<Promise<void>>();
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; method?: string; params?: any; sessionId?: string; result?: unknown };
    if (message.id !== undefined) return void pending.get(message.id)?.(message.result);
    const p = message.params;
    // One request can show on two sessions (a worker's script: asked for by the page, loaded for the
    // worker), under one id.
    const key = String(p?.requestId);
    switch (message.method) {
      case 'Target.attachedToTarget': {
        const session = p.sessionId as string;
        targets.set(session, `${p.targetInfo.type}`);
        const attached = (async () => {
          if (['page', 'worker', 'iframe'].includes(p.targetInfo.type)) {
            await send('Network.enable', {}, session);
            await send('Target.setAutoAttach', autoAttach, session);
          }
          await send('Runtime.runIfWaitingForDebugger', {}, session);
        })();
        attaching.add(attached);
        void attached.then(() => attaching.delete(attached));
        break;
      }
      case 'Network.requestWillBeSent':
        if (!p.request.url.startsWith('http') || transfers.has(key)) break;
        transfers.set(key, { url: p.request.url, target: targets.get(message.sessionId!) ?? '?', type: p.type, started_s: p.timestamp, phase });
        break;
      case 'Network.responseReceived': {
        const t = transfers.get(key);
        if (!t) break;
        const headers = Object.fromEntries(Object.entries(p.response.headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
        Object.assign(t, { status: p.response.status, encoding: headers['content-encoding'] ?? 'identity', mime: p.response.mimeType, contentLength: headers['content-length'] === undefined ? undefined : Number(headers['content-length']) });
        break;
      }
      case 'Network.loadingFinished': {
        const t = transfers.get(key);
        if (!t) break;
        // Chromium reports a dedicated worker's own script with the headers' length only (its body
        // reaches the worker another way): the body's length is added from Content-Length.
        const headersOnly = t.contentLength !== undefined && p.encodedDataLength > 0 && p.encodedDataLength < t.contentLength;
        Object.assign(t, { finished_s: p.timestamp, bytes: headersOnly ? p.encodedDataLength + t.contentLength! : p.encodedDataLength, headersOnly });
        break;
      }
      case 'Network.loadingFailed': {
        const t = transfers.get(key);
        if (t) Object.assign(t, { finished_s: p.timestamp, failed: p.errorText, bytes: 0 });
        break;
      }
    }
  };
  // The targets there already (the first page) are announced before this answers: their Network
  // is on before the first navigation.
  await send('Target.setAutoAttach', autoAttach);
  await Promise.all([...attaching]);
  if (targets.size === 0) throw new Error('CDP: no page to record');
  return {
    setPhase: (name: string) => void (phase = name),
    transfers: () => [...transfers.values()],
    /** Waits until every request started has finished or failed. */
    async settled(timeoutMs = 5000): Promise<void> {
      const end = Date.now() + timeoutMs;
      while (Date.now() < end && [...transfers.values()].some((t) => t.finished_s === undefined)) await new Promise((r) => setTimeout(r, 20));
    },
    close: () => ws.close(),
  };
}
