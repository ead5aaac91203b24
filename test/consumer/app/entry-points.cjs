// node entry-points.cjs '["@svc/sdk", ...]' -> {"@svc/sdk": ["SvcError", ...], ...} (or {"error"}).
const answer = {};
for (const specifier of JSON.parse(process.argv[2])) {
  try {
    answer[specifier] = Object.keys(require(specifier))
      .filter((name) => name !== 'default' && name !== '__esModule')
      .sort();
  } catch (error) {
    answer[specifier] = { error: `${error.code ?? error.name}: ${error.message.split('\n')[0]}` };
  }
}
console.log(JSON.stringify(answer));
