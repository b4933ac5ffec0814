import { get } from "../api.js"
import { href, hrefIn } from "../router.js"
import type { AdminProject } from "../types.js"
import type { PageProps } from "../routes.js"
import { Empty, ErrorNote, Loading, useLoad } from "../ui.js"

/** The operator's view: every project of the instance (GET /admin/v1/projects). */
export const Projects = (_: PageProps) => {
  const list = useLoad(() => get<{ data: ReadonlyArray<AdminProject> }>("/admin/v1/projects"), [])
  if (list.value === undefined) return list.error === undefined ? <Loading /> : <ErrorNote error={list.error} onRetry={list.reload} />
  if (list.value.data.length === 0) return <Empty>No project yet: create one with the admin API or `herald admin projects create`.</Empty>
  return (
    <>
      <p class="help">
        Open a project to work in it as its operator: the approval queue, the posts, the composer, accounts and insights.
      </p>
      <table>
        <thead>
          <tr><th scope="col">Project</th><th scope="col">Approval</th><th scope="col">Time zone</th><th scope="col">Signature</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr>
        </thead>
        <tbody>
          {list.value.data.map((project) => (
            <tr key={project.id}>
              <th scope="row" id={`project-${project.id}`}><a href={href("settings", project.id)}>{project.name}</a><br /><code>{project.id}</code></th>
              <td>{project.approval}</td>
              <td>{project.timezone}</td>
              <td>{project.signature}</td>
              <td><a class="button" href={hrefIn(project.id, "queue")} aria-describedby={`project-${project.id}`}>Open</a></td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}
