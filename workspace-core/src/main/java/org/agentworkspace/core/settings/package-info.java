/** Per-user settings that are not secret: notification preferences. */
package org.agentworkspace.core.settings;
