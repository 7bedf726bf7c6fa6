// A second host, for the integration tests: appends to sessions of one project and reports each
// committed message on stdout, so the test knows what must have survived a kill.
// argv: <bundled store module> <dataDir> <root> <sessions> <messages per session (0 = forever)>
import { pathToFileURL } from 'node:url';

const [modulePath, dataDir, root, sessionsArg, messagesArg] = process.argv.slice(2);
const { SessionStore } = await import(pathToFileURL(modulePath).href);
const store = await SessionStore.open(dataDir);
const sessions = Number(sessionsArg);
const perSession = Number(messagesArg);
const handles = [];
for (let s = 0; s < sessions; s++) {
  const handle = await store.create({
    root,
    mode: 'agent',
    model: 'm',
    firstPrompt: `from ${process.pid} #${s}`,
  });
  handles.push(handle);
  process.stdout.write(`session ${handle.id}\n`);
}
for (let i = 0; perSession === 0 || i < perSession; i++) {
  await Promise.all(
    handles.map(async (handle) => {
      // A turn as the agent records it: the assistant message, then its tool result.
      const call = { id: `c${i}`, name: 'read_file', arguments: {}, rawArguments: '{}', state: 'pending' };
      const message = {
        role: 'assistant',
        id: `a${i}`,
        text: `message ${i} ${'x'.repeat(i % 7 === 0 ? 5000 : 50)}`,
        toolCalls: [call],
        finishReason: 'tool_calls',
        provider: 'p',
        model: 'm',
        createdAt: i,
      };
      await handle.append(message);
      call.state = 'done';
      call.result = { output: `result ${i}` };
      await handle.update(message);
      process.stdout.write(`ok ${handle.id} ${i}\n`);
    }),
  );
  // Listing writes the shared index: the other host does the same at the same time.
  if (i % 10 === 0) await store.list(root);
}
await store.close();
process.stdout.write('done\n');
