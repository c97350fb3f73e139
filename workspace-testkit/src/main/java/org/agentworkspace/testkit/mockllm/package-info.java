/** A scripted mock LLM endpoint speaking the Anthropic, OpenAI (Chat and Responses) and Gemini wire formats. */
package org.agentworkspace.testkit.mockllm;
