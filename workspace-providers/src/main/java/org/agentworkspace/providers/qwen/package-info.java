/** Qwen Code ({@code qwen -o stream-json}, a Claude-shaped stream). */
package org.agentworkspace.providers.qwen;
