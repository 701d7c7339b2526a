// Changelog lines for `changeset version`. With GITHUB_TOKEN set (CI releases), @changesets/changelog-github
// links each line to its pull request, commit and author; it needs the token to ask GitHub. Without one (a
// local dry run, a fork) the plain changesets changelog is used instead of failing, and one line on stderr says so.
const github = require('@changesets/changelog-github');
const plain = require('@changesets/cli/changelog');

let warned = false;
function pick() {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: read by `changeset version`, which turbo does not run
  if (process.env.GITHUB_TOKEN) return github.default ?? github;
  if (!warned) {
    warned = true;
    process.stderr.write('changelog: GITHUB_TOKEN is not set; writing plain entries without pull-request and author links\n');
  }
  return plain.default ?? plain;
}

module.exports = {
  getReleaseLine: (...args) => pick().getReleaseLine(...args),
  getDependencyReleaseLine: (...args) => pick().getDependencyReleaseLine(...args),
};
