package org.agentworkspace.core.agent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.WorkspaceException;

/**
 * The node graph of a workflow of the retired family (docs/workflows.md), expanded from a request's
 * {@code metadata}: for {@code agent_team} a coordinator, a bounded number of backend handoff nodes, one worker per
 * enabled agent that is not a reviewer, one review node per reviewer, and a final report. Every dependency is
 * checked (it names a node of the graph, and the graph has no cycle). Invalid metadata is 400
 * {@link #INVALID_WORKFLOW_METADATA}.
 */
public final class WorkflowGraph {
    /** 400: the workflow's metadata cannot make a graph (agents, settings, dependencies). */
    public static final String INVALID_WORKFLOW_METADATA = "INVALID_WORKFLOW_METADATA";
    /** The one workflow this server knows; its graph expands from {@code metadata.agents}. */
    public static final String AGENT_TEAM = "agent_team";
    /** At most this many agents in a team, and at most this many node runs at once. */
    public static final int MAX_AGENTS = 12;
    /** At most this many backend handoff nodes (the "bounded" handoffs). */
    public static final int MAX_HANDOFFS = 3;
    /** A node's time limit unless its agent names one. */
    public static final long DEFAULT_NODE_TIMEOUT_MS = 1_800_000;
    /** How often a node with {@code onFail: retry} is started again at most, unless the settings say otherwise. */
    public static final int DEFAULT_MAX_RETRIES = 1;

    /** Adapter ids of the 1.36.1 description → provider ids of this server. */
    public static final Map<String, String> ADAPTERS = Map.of("claude-code", "claude", "codex", "codex",
            "cursor", "cursor", "gemini", "gemini", "qwen", "qwen", "opencode", "opencode");

    private static final Set<String> REVIEW_ROLES = Set.of("review", "critique");
    private static final Set<String> ON_FAIL = Set.of("abort", "continue", "retry");
    private static final Set<String> AGENT_FIELDS = Set.of("adapterId", "instanceId", "label", "role", "instruction",
            "model", "permissionMode", "enabled", "toolsSettings", "onFail", "timeoutMs");
    private static final Set<String> METADATA_FIELDS = Set.of("projectId", "selectedProjectPath", "projectPath",
            "workspaceTarget", "agents", "settings");
    private static final Set<String> SETTINGS_FIELDS = Set.of("maxParallelAgents", "isolation", "keepWorkspace",
            "onFail", "maxRetries");

    /** An agent of the team as the caller described it. */
    public record Agent(String adapterId, String provider, String instanceId, String label, String role,
                        String instruction, String model, String permissionMode, String onFail, long timeoutMs) {
    }

    /**
     * One node.
     *
     * @param kind   {@code coordinator}, {@code handoff}, {@code worker}, {@code review}, {@code final}
     * @param inputs the nodes whose outputs this node is given (it starts once they ended)
     */
    public record Node(String id, String kind, Agent agent, List<String> inputs, String onFail, String output,
                       long timeoutMs) {
    }

    /** The expanded graph with the run settings. */
    public record Plan(String workflowId, List<Node> nodes, int maxParallel, AgentRunService.Isolation isolation,
                       boolean keepWorkspace, int maxRetries) {
        public Node node(String id) {
            return nodes.stream().filter(n -> n.id().equals(id)).findFirst().orElseThrow();
        }
    }

    private WorkflowGraph() {
    }

    /** The workflows this server knows (definitions are built in, not stored: docs/workflows.md). */
    public static List<Map<String, Object>> workflows() {
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("id", AGENT_TEAM);
        w.put("name", "Agent team");
        w.put("description", "A coordinator, optional backend handoffs, one worker per agent, reviewers and a final "
                + "report, expanded from metadata.agents; every node is an automation run");
        w.put("dynamic", true);
        w.put("maintainedRoute", "POST /api/automation/run");
        return List.of(w);
    }

    /** 404 {@code WORKFLOW_NOT_FOUND} unless {@code workflowId} is a workflow of {@link #workflows()}. */
    public static void requireKnown(String workflowId) {
        if (!AGENT_TEAM.equals(workflowId)) {
            throw new WorkspaceException.NotFound(WorkflowRuns.WORKFLOW_NOT_FOUND, "no workflow '"
                    + workflowId.replaceAll("\\p{Cntrl}", "?") + "'; GET /api/orchestration/workflows lists them");
        }
    }

    /**
     * Expands {@code metadata} (may be null or missing for a preview: then there is no agent, which is 400) into the
     * graph of {@code workflowId}.
     */
    public static Plan expand(String workflowId, JsonNode metadata) {
        requireKnown(workflowId);
        JsonNode meta = metadata == null || metadata.isNull() || metadata.isMissingNode() ? null : metadata;
        if (meta != null && !meta.isObject()) {
            throw invalid("metadata must be an object");
        }
        if (meta != null) {
            for (var it = meta.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!METADATA_FIELDS.contains(f)) {
                    throw invalid("unknown field metadata." + clip(f));
                }
            }
        }
        JsonNode settings = meta == null ? null : meta.get("settings");
        if (settings != null && !settings.isNull() && !settings.isObject()) {
            throw invalid("metadata.settings must be an object");
        }
        if (settings != null && settings.isObject()) {
            for (var it = settings.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!SETTINGS_FIELDS.contains(f)) {
                    throw invalid("unknown field metadata.settings." + clip(f));
                }
            }
        }
        int maxParallel = intSetting(settings, "maxParallelAgents", 3, 1, MAX_AGENTS);
        int maxRetries = intSetting(settings, "maxRetries", DEFAULT_MAX_RETRIES, 0, 5);
        String defaultOnFail = onFail(settings == null ? null : settings.get("onFail"), "abort",
                "metadata.settings.onFail");
        AgentRunService.Isolation isolation;
        try {
            isolation = AgentRunService.Isolation.parse(text(settings, "isolation", "metadata.settings.isolation"));
        } catch (WorkspaceException e) {
            throw invalid("metadata.settings.isolation must be one of host, worktree, docker");
        }
        boolean keep = bool(settings, "keepWorkspace", true);

        JsonNode agentsNode = meta == null ? null : meta.get("agents");
        if (agentsNode == null || agentsNode.isNull()) {
            throw invalid("metadata.agents is required: the agent_team graph expands from it");
        }
        if (!agentsNode.isArray()) {
            throw invalid("metadata.agents must be an array");
        }
        List<Agent> agents = new ArrayList<>();
        Map<String, Integer> perAdapter = new HashMap<>();
        Set<String> ids = new HashSet<>();
        int index = 0;
        for (JsonNode a : agentsNode) {
            index++;
            String where = "metadata.agents[" + (index - 1) + "]";
            if (!a.isObject()) {
                throw invalid(where + " must be an object");
            }
            for (var it = a.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!AGENT_FIELDS.contains(f)) {
                    throw invalid("unknown field " + where + "." + clip(f));
                }
            }
            String adapter = text(a, "adapterId", where + ".adapterId");
            if (adapter == null || !ADAPTERS.containsKey(adapter)) {
                throw invalid(where + ".adapterId must be one of claude-code, codex, cursor, gemini, qwen, opencode");
            }
            int order = perAdapter.merge(adapter, 1, Integer::sum);
            if (!bool(a, "enabled", true)) {
                continue;
            }
            String instanceId = text(a, "instanceId", where + ".instanceId");
            if (instanceId == null) {
                instanceId = adapter + "-" + order;
            }
            if (!instanceId.matches("[A-Za-z0-9._-]{1,64}")) {
                throw invalid(where + ".instanceId must be 1-64 letters, digits, '.', '_' or '-'");
            }
            if (!ids.add(instanceId)) {
                throw invalid("two agents have the instanceId " + instanceId);
            }
            String role = text(a, "role", where + ".role");
            role = role == null ? "implementation" : role.strip().toLowerCase(Locale.ROOT);
            String label = text(a, "label", where + ".label");
            long timeout = a.has("timeoutMs") ? longValue(a.get("timeoutMs"), where + ".timeoutMs", 1000, 86_400_000)
                    : DEFAULT_NODE_TIMEOUT_MS;
            String model = text(a, "model", where + ".model");
            if (model != null) {
                org.agentworkspace.api.provider.RunSpec.checkModel(model);
            }
            String mode = text(a, "permissionMode", where + ".permissionMode");
            if (mode != null && org.agentworkspace.api.provider.PermissionMode.find(mode).isEmpty()) {
                throw invalid(where + ".permissionMode must be default, acceptEdits or bypassPermissions");
            }
            String instruction = text(a, "instruction", where + ".instruction");
            if (instruction != null && instruction.length() > 20_000) {
                throw invalid(where + ".instruction is longer than 20000 characters");
            }
            agents.add(new Agent(adapter, ADAPTERS.get(adapter), instanceId, label == null ? instanceId : label, role,
                    instruction, model, mode, onFail(a.get("onFail"), defaultOnFail, where + ".onFail"), timeout));
        }
        if (agents.isEmpty()) {
            throw invalid("metadata.agents names no enabled agent");
        }
        if (agents.size() > MAX_AGENTS) {
            throw invalid("at most " + MAX_AGENTS + " enabled agents");
        }
        return new Plan(workflowId, build(agents, defaultOnFail), maxParallel, isolation, keep, maxRetries);
    }

    private static List<Node> build(List<Agent> agents, String defaultOnFail) {
        List<Agent> reviewers = agents.stream().filter(a -> REVIEW_ROLES.contains(a.role())).toList();
        List<Agent> workers = agents.stream().filter(a -> !REVIEW_ROLES.contains(a.role())).toList();
        // a team of reviewers only still needs someone to do the work: they all work, nobody reviews
        if (workers.isEmpty()) {
            workers = reviewers;
            reviewers = List.of();
        }
        Agent lead = workers.getFirst();
        List<Node> nodes = new ArrayList<>();
        nodes.add(new Node("coordinator", "coordinator", lead, List.of(), defaultOnFail, "message",
                lead.timeoutMs()));
        List<String> handoffs = new ArrayList<>();
        boolean frontends = workers.stream().anyMatch(a -> a.role().equals("frontend"));
        for (Agent a : workers) {
            if (a.role().equals("backend") && frontends && handoffs.size() < MAX_HANDOFFS) {
                String id = "handoff-" + a.instanceId();
                nodes.add(new Node(id, "handoff", a, List.of("coordinator"), a.onFail(), "both", a.timeoutMs()));
                handoffs.add(id);
            }
        }
        List<String> workerIds = new ArrayList<>();
        for (Agent a : workers) {
            List<String> in = new ArrayList<>(List.of("coordinator"));
            if (a.role().equals("frontend")) {
                in.addAll(handoffs);
            } else if (handoffs.contains("handoff-" + a.instanceId())) {
                in.add("handoff-" + a.instanceId());
            }
            String id = "worker-" + a.instanceId();
            nodes.add(new Node(id, "worker", a, List.copyOf(in), a.onFail(), "both", a.timeoutMs()));
            workerIds.add(id);
        }
        List<String> reviewIds = new ArrayList<>();
        for (Agent a : reviewers) {
            String id = "review-" + a.instanceId();
            nodes.add(new Node(id, "review", a, List.copyOf(workerIds), a.onFail(), "message", a.timeoutMs()));
            reviewIds.add(id);
        }
        List<String> finalInputs = new ArrayList<>(workerIds);
        finalInputs.addAll(reviewIds);
        nodes.add(new Node("final-report", "final", lead, List.copyOf(finalInputs), defaultOnFail, "message",
                lead.timeoutMs()));
        validate(nodes);
        return List.copyOf(nodes);
    }

    /** Every input names a node, no node depends on itself, and the graph has no cycle (Kahn's order). */
    static void validate(List<Node> nodes) {
        Map<String, Node> byId = new LinkedHashMap<>();
        for (Node n : nodes) {
            if (byId.put(n.id(), n) != null) {
                throw invalid("two nodes are named " + n.id());
            }
        }
        Map<String, Integer> indegree = new HashMap<>();
        for (Node n : nodes) {
            for (String in : n.inputs()) {
                if (!byId.containsKey(in)) {
                    throw invalid("node " + n.id() + " depends on " + in + ", which is not a node of the workflow");
                }
            }
            indegree.put(n.id(), n.inputs().size());
        }
        List<String> ready = new ArrayList<>(nodes.stream().filter(n -> n.inputs().isEmpty()).map(Node::id).toList());
        int seen = 0;
        while (!ready.isEmpty()) {
            String id = ready.removeLast();
            seen++;
            for (Node n : nodes) {
                if (n.inputs().contains(id) && indegree.merge(n.id(), -1, Integer::sum) == 0) {
                    ready.add(n.id());
                }
            }
        }
        if (seen != nodes.size()) {
            throw invalid("the workflow's dependencies form a cycle");
        }
    }

    private static String onFail(JsonNode v, String dflt, String where) {
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (!v.isTextual() || !ON_FAIL.contains(v.asText())) {
            throw invalid(where + " must be one of abort, continue, retry");
        }
        return v.asText();
    }

    private static int intSetting(JsonNode settings, String field, int dflt, int min, int max) {
        JsonNode v = settings == null ? null : settings.get(field);
        if (v == null || v.isNull()) {
            return dflt;
        }
        return (int) longValue(v, "metadata.settings." + field, min, max);
    }

    private static long longValue(JsonNode v, String where, long min, long max) {
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
            throw invalid(where + " must be a whole number from " + min + " to " + max);
        }
        return v.asLong();
    }

    private static boolean bool(JsonNode o, String field, boolean dflt) {
        JsonNode v = o == null ? null : o.get(field);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (!v.isBoolean()) {
            throw invalid(field + " must be true or false");
        }
        return v.asBoolean();
    }

    private static String text(JsonNode o, String field, String where) {
        JsonNode v = o == null ? null : o.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw invalid(where + " must be a string");
        }
        String s = v.asText().strip();
        return s.isEmpty() ? null : s;
    }

    private static String clip(String s) {
        return s.substring(0, Math.min(64, s.length())).replaceAll("\\p{Cntrl}", "?");
    }

    static WorkspaceException invalid(String message) {
        return new WorkspaceException.Validation(INVALID_WORKFLOW_METADATA, message);
    }
}
