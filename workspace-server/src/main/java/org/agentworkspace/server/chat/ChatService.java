package org.agentworkspace.server.chat;

import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.WsGate;

/**
 * The HTTP side of {@code /ws}: a refused upgrade (or a plain GET) lands here and gets the error envelope (401, 403,
 * 429) from the same rules the upgrade uses, or 426 when everything but the upgrade was right.
 */
public final class ChatService extends ApiService {
    private final WsGate gate;
    private final ChatEndpoint endpoint;

    public ChatService(WsGate gate, ChatEndpoint endpoint, Guard guard, RouteTable table) {
        super("chat", guard, table);
        this.gate = gate;
        this.endpoint = endpoint;
    }

    @Override
    protected void declare(Routes r) {
        r.get(ChatEndpoint.PATH, ChatEndpoint.ACCESS, gate.fallback(endpoint::checkCap));
    }
}
