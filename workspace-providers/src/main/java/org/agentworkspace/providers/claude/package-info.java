/** Claude Code ({@code claude -p --output-format stream-json}). */
package org.agentworkspace.providers.claude;
