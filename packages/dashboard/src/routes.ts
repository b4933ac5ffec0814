import type { FunctionComponent } from "preact"
import { Accounts } from "./pages/Accounts.js"
import { Composer } from "./pages/Composer.js"
import { Insights } from "./pages/Insights.js"
import { PostDetail } from "./pages/PostDetail.js"
import { Posts } from "./pages/Posts.js"
import { Projects } from "./pages/Projects.js"
import { Queue } from "./pages/Queue.js"
import { Settings } from "./pages/Settings.js"
import type { Session } from "./session.js"

export interface PageProps {
  readonly session: Session
  readonly params: ReadonlyArray<string>
}

/**
 * The dashboard's pages: one file each under pages/, added here. `for` says who can use it:
 * `project` pages work in one project through the REST API (a reviewer's session, in its key's
 * project; the operator's, in the project it opened, sending Herald-Project), `operator` pages
 * through the admin API (the operator's session only). `nav` puts it in the navigation. The first
 * page a session can open is its home.
 */
export interface Route {
  readonly page: string
  readonly title: string
  readonly for: "project" | "operator"
  readonly nav: boolean
  readonly component: FunctionComponent<PageProps>
}

export const routes: ReadonlyArray<Route> = [
  { page: "queue", title: "Approval queue", for: "project", nav: true, component: Queue },
  { page: "posts", title: "Posts", for: "project", nav: true, component: Posts },
  { page: "post", title: "Post", for: "project", nav: false, component: PostDetail },
  { page: "compose", title: "Composer", for: "project", nav: true, component: Composer },
  { page: "accounts", title: "Accounts", for: "project", nav: true, component: Accounts },
  { page: "insights", title: "Insights", for: "project", nav: true, component: Insights },
  { page: "projects", title: "Projects", for: "operator", nav: true, component: Projects },
  { page: "settings", title: "Settings", for: "operator", nav: false, component: Settings }
]

/** The pages a session can open: `project` pages need a project (the operator's open one). */
export const routesFor = (session: Session, project: string | null) =>
  routes.filter((route) =>
    route.for === "operator" ? session.role === "operator" : session.role === "reviewer" || project !== null)
