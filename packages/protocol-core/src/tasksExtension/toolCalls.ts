/**
 * `tools/call` for a server whose task tools have an `outputSchema`.
 *
 * The SDK's `McpServer` (2.4) checks every `tools/call` result of a tool with an `outputSchema` for
 * `structuredContent` and turns a result without it into an `isError` answer, so a flat `CreateTaskResult`
 * (`resultType: 'task'`, no `structuredContent`) cannot get through it. Until the SDK's own tasks extension ships
 * (typescript-sdk#2782, which answers a task from the tool's handler the same way), `registerTools(…, { tasks })`
 * installs this handler in the SDK's place (`Server.setRequestHandler`, public API) for such a server: the same
 * steps and texts as `McpServer`'s handler (unknown tool, input validation, the handler, output validation, any
 * throw an `isError` result, -32042 passed on), with one difference: a task result is answered as it is. Listing
 * (`tools/list`) stays the SDK's; the `Server` still checks the result against the era's `CallToolResult`.
 *
 * The server's tools must all come from that one `registerTools` call (a tool registered on the `McpServer`
 * another way would not be found here): `serveToolCalls` refuses a second call for the same server.
 */
import { type McpServer, ProtocolError, ProtocolErrorCode, type ServerContext, type StandardSchemaV1 } from '@modelcontextprotocol/server';

/** One tool as this handler runs it. */
export interface ServedToolCall {
  input: StandardSchemaV1;
  output?: StandardSchemaV1;
  /** The callback given to `McpServer.registerTool`: parsed arguments in, the answer out. */
  run: (args: unknown, ctx: ServerContext) => Promise<Record<string, unknown>>;
}

const served = new WeakSet<McpServer>();

/** As the SDK words a schema issue: `path.to.field: message`, joined with `, `. */
function issuesText(issues: ReadonlyArray<StandardSchemaV1.Issue>): string {
  return issues
    .map((issue) => {
      if (!issue.path?.length) return issue.message;
      return `${issue.path.map((p) => String(typeof p === 'object' ? p.key : p)).join('.')}: ${issue.message}`;
    })
    .join(', ');
}

async function validated(schema: StandardSchemaV1, value: unknown): Promise<{ value: unknown } | { error: string }> {
  const result = await schema['~standard'].validate(value);
  if (result.issues && result.issues.length > 0) return { error: issuesText(result.issues) };
  return { value: (result as StandardSchemaV1.SuccessResult<unknown>).value };
}

/** Answered as it is: a task, an `input_required` result, a tool error. */
function passesAsIs(result: Record<string, unknown>): boolean {
  return result.resultType === 'task' || result.resultType === 'input_required' || result.isError === true;
}

async function call(tool: ServedToolCall, name: string, args: unknown, ctx: ServerContext): Promise<Record<string, unknown>> {
  const input = await validated(tool.input, args ?? {});
  if ('error' in input) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Input validation error: Invalid arguments for tool ${name}: ${input.error}`);
  }
  const result = await tool.run(input.value, ctx);
  if (!tool.output || passesAsIs(result)) return result;
  if (result.structuredContent === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Output validation error: Tool ${name} has an output schema but no structured content was provided`,
    );
  }
  const output = await validated(tool.output, result.structuredContent);
  if ('error' in output) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Output validation error: Invalid structured content for tool ${name}: ${output.error}`,
    );
  }
  return result;
}

/** Answers `server`'s `tools/call` for `tools` (by name), in place of the `McpServer`'s handler. Once per server. */
export function serveToolCalls(server: McpServer, tools: ReadonlyMap<string, ServedToolCall>): void {
  if (served.has(server)) throw new Error('serveToolCalls: this server already answers tools/call through it');
  served.add(server);
  server.server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const tool = tools.get(name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    try {
      return (await call(tool, name, args, ctx)) as never;
    } catch (error) {
      if (error instanceof ProtocolError && error.code === ProtocolErrorCode.UrlElicitationRequired) throw error;
      return { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true };
    }
  });
}
