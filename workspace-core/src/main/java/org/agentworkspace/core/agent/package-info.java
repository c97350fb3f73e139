/**
 * Agent runs: the bridge from the provider SPI (binary, launch plan, stream parser) to the run engine, the summary
 * of a finished run (text, session, usage, bounded logs), and repository preparation for {@code githubUrl} runs
 * (checked clone, branch, pull request). See docs/agent-runs.md.
 */
package org.agentworkspace.core.agent;
