package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

type greetIn struct {
	Name string `json:"name" jsonschema_description:"Who to greet"`
}

type slowIn struct {
	Seconds float64 `json:"seconds" jsonschema_description:"How long to work, in seconds (0: at once)"`
	Label   string  `json:"label,omitempty" jsonschema_description:"A label echoed in the result"`
}

type deleteIn struct {
	Filename string `json:"filename" jsonschema_description:"The file to delete (nothing is deleted: this is a fixture)"`
}

// addTaskTools registers the tools the suite's tasks-* scenarios call (the Tasks
// extension, io.modelcontextprotocol/tasks). Their handlers are plain tool handlers:
// mcpkit answers inline or turns the call into a task (Tool.TaskSupport).
func addTaskTools(s *mcpkit.Server) {
	ro := mcpkit.ReadOnly()
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "greet", Description: "Greets someone at once (never a task).", Annotations: ro},
		func(ctx context.Context, req *mcpkit.Request, in greetIn) (*mcpkit.CallToolResult, error) {
			return text("Hello, " + in.Name + "!"), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "slow_compute", Description: "Works for the given number of seconds, then answers; a task when it takes long.",
		Annotations: ro, TaskSupport: mcpkit.TaskOptional},
		func(ctx context.Context, req *mcpkit.Request, in slowIn) (*mcpkit.CallToolResult, error) {
			total := time.Duration(in.Seconds * float64(time.Second))
			start := time.Now()
			for time.Since(start) < total {
				step := min(100*time.Millisecond, total-time.Since(start))
				if err := sleep(ctx, step); err != nil {
					// The scale-out test reads this line to see the work stop.
					req.Logger().Info("slow_compute stopped", "label", in.Label, "reason", err)
					return nil, err
				}
				req.Progress(time.Since(start).Seconds(), in.Seconds, fmt.Sprintf("%.1f of %g seconds", time.Since(start).Seconds(), in.Seconds))
			}
			return text(fmt.Sprintf("slow_compute %q finished after %g seconds", in.Label, in.Seconds)), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "failing_job", Description: "Runs only as a task, and fails (a tool error) after about a second.",
		Annotations: ro, TaskSupport: mcpkit.TaskRequired},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			if err := sleep(ctx, time.Second); err != nil {
				return nil, err
			}
			return mcpkit.ToolError("failing_job failed, as it always does"), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "protocol_error_job", Description: "A task whose handler panics: the task fails with a JSON-RPC error.",
		Annotations: ro, TaskSupport: mcpkit.TaskOptional},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			if err := sleep(ctx, 500*time.Millisecond); err != nil {
				return nil, err
			}
			panic("protocol_error_job fails on purpose")
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "confirm_delete", Description: "Starts a task at once, then asks the user to confirm through it (deletes nothing).",
		TaskSupport: mcpkit.TaskOptional},
		func(ctx context.Context, req *mcpkit.Request, in deleteIn) (*mcpkit.CallToolResult, error) {
			req.StartTask()
			if err := req.Confirm(ctx, "confirm", fmt.Sprintf("Delete %s?", in.Filename)); err != nil {
				if errors.Is(err, mcpkit.ErrNotConfirmed) {
					return mcpkit.ToolError(err.Error()), nil
				}
				return nil, err
			}
			return text("Deleted " + in.Filename + " (not really: this is a fixture)."), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "multi_input", Description: "Starts a task, then asks two questions at once through it.",
		Annotations: ro, TaskSupport: mcpkit.TaskOptional},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			req.StartTask()
			answers, err := req.Input(ctx, map[string]mcpkit.InputRequest{
				"first_name":   elicitRequest("What is your first name?", nameSchema),
				"confirmation": elicitRequest("Please confirm", nameSchema),
			})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Received %d answers: %s and %s", len(answers), answers["first_name"], answers["confirmation"])), nil
		})
	mcpkit.AddTool(s, &mcpkit.Tool{Name: "test_tool_with_task", Description: "Runs only as a task: asks the user's name first (input_required), then answers as a task.",
		Annotations: ro, TaskSupport: mcpkit.TaskRequired},
		func(ctx context.Context, req *mcpkit.Request, in none) (*mcpkit.CallToolResult, error) {
			res, err := req.Elicit(ctx, "user_name", mcpkit.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema})
			if err != nil {
				return nil, err
			}
			name, _ := res.Content["name"].(string)
			return text("Hello, " + name + ", from a task!"), nil
		})
}
