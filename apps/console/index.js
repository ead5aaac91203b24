// The folder of the built console (index.html, console.js, console.css), for the server to serve.
module.exports = { consoleDir: require('node:path').join(__dirname, 'dist') };
