/** OpenAI Codex CLI ({@code codex exec --json}). */
package org.agentworkspace.providers.codex;
