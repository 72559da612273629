package serve

import (
	"errors"
	"fmt"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// storeMemory is the value of --replay-store and --limit-store that keeps their state
// in this process's memory even when --task-store names a shared store.
const storeMemory = "memory"

// sharedStores opens the stores instances share: --task-store, and --replay-store and
// --limit-store, which default to the task store's URL (one Redis for all by
// default). Each URL is opened once, through [Flags.TaskStore]; the store it returns
// is also the replay guard and the caller limits when it implements
// mcpkit.ReplayGuard and mcpkit.SharedLimits (package taskstore/redisstore does).
func (f *Flags) sharedStores(o *Options) error {
	replay, limits := f.replayStore, f.limitStore
	if replay == "" {
		replay = f.taskStore
	}
	if limits == "" {
		limits = f.taskStore
	}
	opened := map[string]mcpkit.TaskStore{}
	open := func(flag, url string) (mcpkit.TaskStore, error) {
		if url == "" || url == storeMemory {
			return nil, nil
		}
		if st, ok := opened[url]; ok {
			return st, nil
		}
		if f.TaskStore == nil {
			return nil, errors.New("--" + flag + " (" + FlagEnv[flag] + "): this server was built without a shared store; keep this state in memory (one instance), or build the server with package taskstore/redisstore (serve.Flags.TaskStore = redisstore.FromURL)")
		}
		st, err := f.TaskStore(url)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", flag, err)
		}
		opened[url] = st
		return st, nil
	}
	if f.taskStore == storeMemory {
		return errors.New("--task-store takes a shared store's URL (redis://host:6379/0); leave it unset to keep tasks in memory")
	}
	var err error
	if o.TaskStore, err = open("task-store", f.taskStore); err != nil {
		return err
	}
	st, err := open("replay-store", replay)
	if err != nil {
		return err
	}
	if st != nil {
		g, ok := st.(mcpkit.ReplayGuard)
		if !ok {
			return fmt.Errorf("--replay-store: the store at this URL (%T) cannot remember used requestStates; use a Redis URL", st)
		}
		o.ReplayGuard = g
	}
	if st, err = open("limit-store", limits); err != nil {
		return err
	}
	if st != nil {
		l, ok := st.(mcpkit.SharedLimits)
		if !ok {
			return fmt.Errorf("--limit-store: the store at this URL (%T) cannot count caller limits; use a Redis URL", st)
		}
		o.HTTP.SharedLimits = l
	}
	return nil
}

// warnUnshared says, when serving HTTP, which state this instance keeps to itself
// that several instances would have to share, as for the state key.
func warnUnshared(s *mcpkit.Server, o *Options) {
	if o.HTTPAddr == "" {
		return
	}
	if o.TaskStore == nil && s.HasTaskTools() {
		s.Logger().Warn("no shared task store (" + FlagEnv["task-store"] + "): tasks are kept in this process's memory, and a task created here is unknown to other instances; set one when running several instances")
	}
	if o.ReplayGuard == nil && s.HasWriteTools() {
		s.Logger().Warn("no shared replay store (" + FlagEnv["replay-store"] + " or " + FlagEnv["task-store"] + "): used requestStates are remembered only by this instance, so a confirmed write replayed to another instance runs again; set one when running several instances")
	}
}
