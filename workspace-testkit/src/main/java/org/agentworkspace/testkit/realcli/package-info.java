/**
 * The real coding-agent CLIs from the npm registry: installing them into a cache outside the repository and the
 * headless recipes (argv, environment, isolated HOME) proven against {@link org.agentworkspace.testkit.mockllm.MockLlmServer}.
 */
package org.agentworkspace.testkit.realcli;
