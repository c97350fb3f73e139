/** Adapters for the coding-agent CLIs behind the provider SPI; nothing here is exported. */
package org.agentworkspace.providers;
