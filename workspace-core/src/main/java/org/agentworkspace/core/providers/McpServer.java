package org.agentworkspace.core.providers;

import java.util.List;
import java.util.Map;

/**
 * An MCP server entry as found in a CLI's file. Secret-looking values (env, headers, tokens) are masked
 * ({@code "…"} plus at most the last four characters).
 *
 * @param name       the entry's name
 * @param scope      {@code user} or {@code local}
 * @param transport  {@code stdio}, {@code http} or {@code sse}
 * @param command    the program (stdio), or {@code null}
 * @param args       its arguments
 * @param env        its environment, values masked
 * @param url        the endpoint (http, sse), or {@code null}
 * @param nativeEntry the entry exactly in the CLI's own shape, values masked
 */
public record McpServer(String name, McpScope scope, String transport, String command, List<String> args,
                        Map<String, String> env, String url, Object nativeEntry) {
}
