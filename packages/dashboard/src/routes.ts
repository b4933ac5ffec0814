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
 * The dashboard's pages: one file each under pages/, added here. `role` says whose session can
 * use it (a reviewer's reaches the REST API, the operator's the admin API); `nav` puts it in the
 * navigation. The first page a role can open is its home.
 */
export interface Route {
  readonly page: string
  readonly title: string
  readonly role: Session["role"]
  readonly nav: boolean
  readonly component: FunctionComponent<PageProps>
}

export const routes: ReadonlyArray<Route> = [
  { page: "queue", title: "Approval queue", role: "reviewer", nav: true, component: Queue },
  { page: "posts", title: "Posts", role: "reviewer", nav: true, component: Posts },
  { page: "post", title: "Post", role: "reviewer", nav: false, component: PostDetail },
  { page: "compose", title: "Composer", role: "reviewer", nav: true, component: Composer },
  { page: "accounts", title: "Accounts", role: "reviewer", nav: true, component: Accounts },
  { page: "insights", title: "Insights", role: "reviewer", nav: true, component: Insights },
  { page: "projects", title: "Projects", role: "operator", nav: true, component: Projects },
  { page: "settings", title: "Settings", role: "operator", nav: false, component: Settings }
]

export const routesFor = (session: Session) => routes.filter((route) => route.role === session.role)
