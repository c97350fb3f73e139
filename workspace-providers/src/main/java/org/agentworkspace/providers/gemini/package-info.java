/** Google Gemini CLI ({@code gemini -o stream-json}). */
package org.agentworkspace.providers.gemini;
