// A project's routes (a new chat, a session): the workspace frame with the conversation in it. A chunk of its own,
// with what only it needs (Markdown and its sanitizer, the chat socket's views, the virtual list), so the start page
// draws the project list without downloading or compiling any of it; app.tsx fetches it in idle time once the list
// is drawn.
import { Conversation } from './conversation';
import type { Route } from './router';
import { Workspace } from './workspace/frame';

export default function ProjectView({ route, admin }: { route: Extract<Route, { name: 'project' | 'new-chat' | 'session' }>; admin: boolean }) {
  return (
    <Workspace key={route.project} project={route.project} admin={admin}>
      {route.name === 'session'
        ? <Conversation key={`s:${route.sessionId}:${route.messageId ?? ''}`} project={route.project} sessionId={route.sessionId} provider={route.provider} messageId={route.messageId} />
        : <Conversation key={`new:${route.project}`} project={route.project} />}
    </Workspace>
  );
}
