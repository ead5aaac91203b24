// node entry-points.mjs '["@svc/sdk", ...]' -> {"@svc/sdk": ["SvcError", ...], ...} (or {"error"}).
const answer = {};
for (const specifier of JSON.parse(process.argv[2])) {
  try {
    answer[specifier] = Object.keys(await import(specifier))
      .filter((name) => name !== 'default')
      .sort();
  } catch (error) {
    answer[specifier] = { error: `${error.code ?? error.name}: ${error.message.split('\n')[0]}` };
  }
}
console.log(JSON.stringify(answer));
