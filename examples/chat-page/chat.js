// @ts-check
/**
 * The example chat page's script (served as it is: no build step). It talks to the chat
 * handler under /api: it sends a message and reads the answer's AI SDK UI message stream
 * (Server-Sent Events) with fetch, shows a tool that needs an approval with Approve and Reject
 * buttons, and on load shows the session's history and, when a run is in progress, attaches to
 * it (GET /api/chat/:id/stream), so a reload mid-answer goes on where it was. Checked by
 * `tsc -p examples/chat-page` (JSDoc types).
 */

const API = '/api';

/**
 * A chunk of the AI SDK UI message stream, as the handler sends it.
 * @typedef {{ type: 'start' | 'start-step' | 'finish-step' }
 *   | { type: 'text-start' | 'text-end'; id: string }
 *   | { type: 'text-delta'; id: string; delta: string }
 *   | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
 *   | { type: 'tool-approval-request' | 'tool-output-denied'; toolCallId: string }
 *   | { type: 'tool-output-available'; toolCallId: string; output: unknown }
 *   | { type: 'tool-output-error'; toolCallId: string; errorText: string }
 *   | { type: 'error'; errorText: string }
 *   | { type: 'finish'; finishReason?: string }} Chunk
 */
/** @typedef {{ type: string; text?: string; toolCallId?: string; state?: string; input?: unknown; output?: unknown; errorText?: string }} Part */
/** @typedef {{ id: string; role: 'user' | 'assistant'; parts: Part[] }} HistoryMessage */

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
function element(id, type) {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`#${id} is missing`);
  return found;
}

const log = element('log', HTMLDivElement);
const list = element('messages', HTMLOListElement);
const statusLine = element('status', HTMLParagraphElement);
const form = element('composer', HTMLFormElement);
const input = element('message', HTMLTextAreaElement);
const send = element('send', HTMLButtonElement);

/** The session of this page: `?session=` in its address, a new one when absent. */
function sessionIdOfPage() {
  const url = new URL(location.href);
  let id = url.searchParams.get('session');
  if (!id) {
    const bytes = crypto.getRandomValues(new Uint8Array(9));
    id = `chat-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
    url.searchParams.set('session', id);
    history.replaceState(null, '', url);
  }
  return id;
}

const sessionId = sessionIdOfPage();
const sessionPath = `${API}/sessions/${encodeURIComponent(sessionId)}`;

/**
 * @param {string} tag
 * @param {string} className
 * @param {string} [text]
 */
function create(tag, className, text) {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** @param {unknown} value */
const shown = (value) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A tool call in a message: its name and input, then its state, output or approval buttons. */
class ToolView {
  /**
   * @param {MessageView} owner the message it is in
   * @param {string} callId
   * @param {string} name
   * @param {unknown} input
   */
  constructor(owner, callId, name, input) {
    this.owner = owner;
    this.callId = callId;
    this.name = name;
    this.node = create('div', 'tool');
    this.node.setAttribute('role', 'group');
    this.node.setAttribute('aria-label', `Tool call ${name}`);
    const call = create('p', 'call');
    call.append(create('code', '', `${name}(${shown(input)})`));
    this.state = create('p', 'state', 'Running…');
    this.node.append(call, this.state);
  }

  /**
   * @param {string} text
   * @param {boolean} [error]
   */
  show(text, error = false) {
    this.node.querySelector('.decide')?.remove();
    this.state.textContent = text;
    this.state.classList.toggle('error', error);
  }

  /** Approve and Reject buttons; a click sends the decision and streams the rest of the run. */
  askApproval() {
    this.show('Needs your approval.');
    const buttons = create('div', 'decide');
    buttons.setAttribute('role', 'group');
    buttons.setAttribute('aria-label', `Decide on ${this.name}`);
    for (const approved of [true, false]) {
      const button = create('button', approved ? '' : 'secondary', approved ? 'Approve' : 'Reject');
      if (!(button instanceof HTMLButtonElement)) continue;
      button.type = 'button';
      button.addEventListener('click', () => void decide(this, approved));
      buttons.append(button);
    }
    this.node.append(buttons);
  }
}

/** A message on the page; an assistant message takes a stream's chunks. */
class MessageView {
  /** @param {'user' | 'assistant'} role */
  constructor(role) {
    this.node = create('li', `message ${role}`);
    this.node.append(create('p', 'who', role === 'user' ? 'You' : 'Assistant'));
    /** @type {Map<string, ToolView>} */
    this.tools = new Map();
    /** @type {Map<string, HTMLElement>} the text parts of the stream being read, by id */
    this.texts = new Map();
    list.append(this.node);
  }

  /** @param {string} text */
  text(text) {
    const paragraph = create('p', 'text', text);
    this.node.append(paragraph);
    return paragraph;
  }

  /**
   * @param {string} callId
   * @param {string} name
   * @param {unknown} input
   */
  tool(callId, name, input) {
    const known = this.tools.get(callId);
    if (known) return known;
    const view = new ToolView(this, callId, name, input);
    this.tools.set(callId, view);
    this.node.append(view.node);
    return view;
  }

  /** @param {Part} part a part of a history message */
  part(part) {
    if (part.type === 'text') {
      this.text(part.text ?? '');
      return;
    }
    if (!part.type.startsWith('tool-') || !part.toolCallId) return;
    const view = this.tool(part.toolCallId, part.type.slice('tool-'.length), part.input);
    if (part.state === 'approval-requested') view.askApproval();
    else if (part.state === 'output-available') view.show(`Result: ${shown(part.output)}`);
    else if (part.state === 'output-error') view.show(`Failed: ${part.errorText ?? ''}`, true);
  }

  /**
   * One chunk of the UI message stream; returns what the page says when the message finishes.
   * @param {Chunk} chunk
   * @returns {string | undefined}
   */
  apply(chunk) {
    switch (chunk.type) {
      case 'text-start':
        this.texts.set(chunk.id, this.text(''));
        break;
      case 'text-delta': {
        const paragraph = this.texts.get(chunk.id) ?? this.text('');
        this.texts.set(chunk.id, paragraph);
        paragraph.textContent += chunk.delta;
        break;
      }
      case 'tool-input-available':
        this.tool(chunk.toolCallId, chunk.toolName, chunk.input);
        break;
      case 'tool-approval-request':
        this.tools.get(chunk.toolCallId)?.askApproval();
        break;
      case 'tool-output-available':
        this.tools.get(chunk.toolCallId)?.show(`Result: ${shown(chunk.output)}`);
        break;
      case 'tool-output-error':
        this.tools.get(chunk.toolCallId)?.show(`Failed: ${chunk.errorText}`, true);
        break;
      case 'tool-output-denied':
        this.tools.get(chunk.toolCallId)?.show('Rejected.');
        break;
      case 'error':
        this.node.append(create('p', 'text error', chunk.errorText));
        return 'The answer ended with an error.';
      case 'finish':
        return chunk.finishReason === 'tool-calls'
          ? 'Waiting for your approval.'
          : 'The answer is complete.';
      case 'start':
      case 'start-step':
      case 'finish-step':
      case 'text-end':
        break;
    }
    return undefined;
  }
}

/**
 * The chunks of a UI message stream response, until `data: [DONE]`.
 * @param {Response} response
 * @returns {AsyncGenerator<Chunk>}
 */
async function* chunksOf(response) {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of event.split('\n')) {
        if (!line.startsWith('data: ')) continue;
        const data = line.slice('data: '.length);
        if (data === '[DONE]') {
          await reader.cancel();
          return;
        }
        yield /** @type {Chunk} */ (JSON.parse(data));
      }
    }
  }
}

/** @param {boolean} on */
function busy(on) {
  send.disabled = on;
  log.setAttribute('aria-busy', String(on));
  for (const button of list.querySelectorAll('.decide button')) {
    if (button instanceof HTMLButtonElement) button.disabled = on;
  }
}

/**
 * A response's JSON body, `undefined` if it has none.
 * @param {Response} response
 * @returns {Promise<unknown>}
 */
async function bodyOf(response) {
  /** @type {unknown} */
  const body = await response.json().catch(() => undefined);
  return body;
}

/**
 * What a refused request says (`{ error: { code, message } }`).
 * @param {Response} response
 */
async function refusal(response) {
  const body = /** @type {{ error?: { code: string; message: string } } | undefined} */ (
    await bodyOf(response)
  );
  const error = body?.error;
  return error ? `${error.message} (${error.code})` : `The server answered ${response.status}.`;
}

/**
 * Reads an answer into `message`; the status line says how it ended.
 * @param {Response} response
 * @param {MessageView} message
 */
async function readAnswer(response, message) {
  busy(true);
  statusLine.textContent = 'Answering…';
  message.texts.clear();
  let ending = 'The connection closed before the answer ended; reload to follow it.';
  try {
    for await (const chunk of chunksOf(response)) ending = message.apply(chunk) ?? ending;
  } catch {
    // The connection broke: the run goes on on the server, a reload attaches to it.
  } finally {
    busy(false);
    statusLine.textContent = ending;
  }
}

/** @param {SubmitEvent} event */
async function sendMessage(event) {
  event.preventDefault();
  const text = input.value.trim();
  if (!text || send.disabled) return;
  busy(true);
  const mine = new MessageView('user');
  mine.text(text);
  input.value = '';
  const response = await fetch(`${sessionPath}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  }).catch(() => undefined);
  if (!response?.ok) {
    mine.node.remove();
    input.value = text;
    busy(false);
    statusLine.textContent = response ? await refusal(response) : 'The server cannot be reached.';
    return;
  }
  await readAnswer(response, new MessageView('assistant'));
}

/**
 * Sends the decision on a call that waits, then streams the run as it goes on.
 * @param {ToolView} tool
 * @param {boolean} approved
 */
async function decide(tool, approved) {
  busy(true);
  const response = await fetch(`${sessionPath}/approvals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ callId: tool.callId, approved }),
  }).catch(() => undefined);
  if (!response?.ok) {
    busy(false);
    statusLine.textContent = response ? await refusal(response) : 'The server cannot be reached.';
    return;
  }
  tool.show(approved ? 'Approved.' : 'Rejected.');
  input.focus(); // the buttons are gone: keep the keyboard's place on the page
  await readAnswer(response, tool.owner);
}

/**
 * On load: the run in progress, if any (asked first, so that a run that ends meanwhile is read
 * whole from the history), and the history before it.
 */
async function load() {
  statusLine.textContent = 'Loading…';
  const live = await fetch(`${API}/chat/${encodeURIComponent(sessionId)}/stream`);
  const read = await fetch(`${sessionPath}/messages`);
  /** @type {HistoryMessage[]} */
  let past = [];
  if (read.ok) past = /** @type {{ messages: HistoryMessage[] }} */ (await bodyOf(read)).messages;
  else if (read.status !== 404) statusLine.textContent = await refusal(read);
  // The run in progress streams from its start: its part of the history is shown by the stream.
  if (live.status === 200 && past[past.length - 1]?.role === 'assistant') past = past.slice(0, -1);
  for (const message of past) {
    const view = new MessageView(message.role);
    for (const part of message.parts) view.part(part);
  }
  if (live.status === 200) {
    await readAnswer(live, new MessageView('assistant'));
    return;
  }
  const waiting = list.querySelector('.decide');
  if (read.ok || read.status === 404)
    statusLine.textContent = waiting ? 'Waiting for your approval.' : '';
}

form.addEventListener('submit', (event) => void sendMessage(event));
input.addEventListener('keydown', (event) => {
  if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
  event.preventDefault();
  form.requestSubmit();
});
load().catch(() => {
  statusLine.textContent = 'The server cannot be reached; reload to try again.';
});
