/**
 * Exposing the service beyond this machine, on an administrator's request: the addresses it listens on, a UPnP port
 * mapping on the router, and a public tunnel through {@code cloudflared} or {@code ngrok}.
 */
package org.agentworkspace.core.network;
