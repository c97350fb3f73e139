/** Cursor's {@code cursor-agent -p --output-format stream-json} (not on npm: untested against the real CLI). */
package org.agentworkspace.providers.cursor;
