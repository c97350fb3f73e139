/** Grok CLI ({@code grok --prompt=...}: prints the conversation as JSON lines when done). */
package org.agentworkspace.providers.grok;
