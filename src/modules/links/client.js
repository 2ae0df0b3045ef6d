/* Partnerd browser client: keeps the pp_click ids of share links, identifies the user.
   <script src="https://partners.example.com/client.js" data-key="pk_..."></script>
   then partnerd.identify(userId) once the user is known. */
(function (w) {
  var s = document.currentScript;
  var KEY = 'partnerd_clicks';
  var ID = /^clk_[0-9a-z]{26}$/;
  var key = s && s.getAttribute('data-key');
  var api = (s && s.getAttribute('data-api')) || (s ? new URL(s.src, location.href).origin : location.origin);

  function load() {
    try {
      var ids = JSON.parse(localStorage.getItem(KEY) || '[]');
      return Array.isArray(ids) ? ids.filter(function (id) { return ID.test(id); }) : [];
    } catch (e) {
      return [];
    }
  }

  // newest last, each id once, at most 20
  var ids = load();
  new URLSearchParams(location.search).getAll('pp_click').forEach(function (id) {
    if (!ID.test(id)) return;
    ids = ids.filter(function (x) { return x !== id; });
    ids.push(id);
  });
  try {
    localStorage.setItem(KEY, JSON.stringify(ids.slice(-20)));
  } catch (e) {}

  w.partnerd = {
    clickIds: load,
    identify: function (userId) {
      return fetch(api + '/v1/identify', {
        method: 'POST',
        keepalive: true,
        headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
        body: JSON.stringify({ userId: String(userId), clickIds: load() }),
      }).then(function (r) {
        return r.json().then(function (body) {
          if (r.ok) return body;
          var e = new Error(body.message || 'identify failed');
          e.status = r.status;
          e.body = body;
          throw e;
        });
      });
    },
  };
})(window);
