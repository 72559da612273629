package sentryapi

import "testing"

func TestNextCursorFromLinkHeader(t *testing.T) {
	cases := []struct {
		name    string
		headers []string
		want    string
	}{
		{"next with results", []string{`<https://sentry.io/api/0/x/?cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1", <https://sentry.io/api/0/x/?cursor=0:100:0>; rel="next"; results="true"; cursor="0:100:0"`}, "0:100:0"},
		{"last page", []string{`<https://sentry.io/api/0/x/?cursor=0:0:1>; rel="previous"; results="true"; cursor="0:0:1", <https://sentry.io/api/0/x/?cursor=0:200:0>; rel="next"; results="false"; cursor="0:200:0"`}, ""},
		{"comma inside the URL", []string{`<https://s/api/0/x/?query=a,b&cursor=1:0:0>; rel="next"; results="true"; cursor="1:0:0"`}, "1:0:0"},
		{"two header lines", []string{`<a>; rel="previous"; results="false"; cursor="p"`, `<b>; rel="next"; results="true"; cursor="n"`}, "n"},
		{"no header", nil, ""},
		{"garbage", []string{"nonsense"}, ""},
	}
	for _, tc := range cases {
		if got := nextCursor(tc.headers); got != tc.want {
			t.Errorf("%s: nextCursor = %q, want %q", tc.name, got, tc.want)
		}
	}
}
