package org.agentworkspace.core.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.WorkspaceException;
import org.junit.jupiter.api.Test;

/** The dependency check of {@link WorkflowGraph}: what the agent_team builder never makes is still refused. */
class WorkflowGraphTest {
    static final WorkflowGraph.Agent A = new WorkflowGraph.Agent("codex", "codex", "codex-1", "codex-1",
            "implementation", null, null, null, "abort", 1000);

    static WorkflowGraph.Node node(String id, String... inputs) {
        return new WorkflowGraph.Node(id, "worker", A, List.of(inputs), "abort", "both", 1000);
    }

    @Test
    void aCycleAMissingInputAndATwiceNamedNodeAreRefused() {
        WorkflowGraph.validate(List.of(node("a"), node("b", "a"), node("c", "a", "b")));
        for (List<WorkflowGraph.Node> bad : List.of(
                List.of(node("a", "c"), node("b", "a"), node("c", "b")),
                List.of(node("a"), node("b", "nowhere")),
                List.of(node("a"), node("a")),
                List.of(node("a", "a")))) {
            WorkspaceException.Validation e = assertThrows(WorkspaceException.Validation.class,
                    () -> WorkflowGraph.validate(bad));
            assertEquals(WorkflowGraph.INVALID_WORKFLOW_METADATA, e.code());
        }
    }

    @Test
    void everyExpandedTeamIsAcyclicAndEndsInTheReport() throws Exception {
        ObjectMapper json = new ObjectMapper();
        WorkflowGraph.Plan p = WorkflowGraph.expand("agent_team", json.readTree("""
                {"agents": [{"adapterId": "codex", "role": "backend"}, {"adapterId": "codex", "role": "backend"},
                 {"adapterId": "qwen", "role": "backend"}, {"adapterId": "opencode", "role": "backend"},
                 {"adapterId": "claude-code", "role": "frontend"}, {"adapterId": "gemini", "role": "critique"}],
                 "settings": {"maxParallelAgents": 12, "isolation": "worktree", "keepWorkspace": false}}"""));
        // at most three handoffs, even with four backend agents
        assertEquals(3, p.nodes().stream().filter(n -> n.kind().equals("handoff")).count());
        assertEquals(List.of("coordinator", "handoff-codex-1", "handoff-codex-2", "handoff-qwen-1"),
                p.node("worker-claude-code-1").inputs());
        assertEquals(List.of("coordinator"), p.node("worker-opencode-1").inputs(), "a backend without a handoff");
        assertEquals("final-report", p.nodes().getLast().id());
        assertEquals(AgentRunService.Isolation.WORKTREE, p.isolation());
        assertEquals(false, p.keepWorkspace());
        assertThrows(WorkspaceException.NotFound.class, () -> WorkflowGraph.expand("other", null));
    }
}
