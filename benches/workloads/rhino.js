// The Rhino workload of benches/scripts/record-programs.sh.
function primes(n) { var out = []; for (var i = 2; out.length < n; i++) { var p = true; for (var j = 0; j < out.length && out[j] * out[j] <= i; j++) { if (i % out[j] == 0) { p = false; break; } } if (p) out.push(i); } return out; }
var ps = primes(40000);
print("primes: " + ps.length + " last " + ps[ps.length - 1]);
var words = "the quick brown fox jumps over the lazy dog".split(" ");
var counts = {};
for (var k = 0; k < 10000; k++) { words.forEach(function (w) { counts[w] = (counts[w] || 0) + 1; }); }
print(JSON.stringify(counts));
var s = ""; for (var i = 0; i < 300; i++) { s += String.fromCharCode(97 + i % 26); }
print(s.replace(/[aeiou]/g, "_").length, /b(c+)d/.test("abccd"));
var objs = []; for (var i = 0; i < 60000; i++) objs.push({id: i, name: "n" + i, v: Math.sqrt(i)});
objs.sort(function (a, b) { return b.v - a.v; });
print(objs[0].name, objs.filter(function (o) { return o.id % 7 == 0; }).length);
