package filesystem

import (
	"context"
	"fmt"
)

const (
	// MaxMultipleFiles is the most paths one read_multiple_files call takes.
	MaxMultipleFiles = 50
	// DefaultMultipleFileBytes is each file's text cap when maxBytesPerFile is not given.
	DefaultMultipleFileBytes = 32 << 10
)

// ReadMultipleFilesInput names several text files to read at once.
type ReadMultipleFilesInput struct {
	Paths           []string `json:"paths" jsonschema:"minItems=1,maxItems=50"`
	MaxBytesPerFile int      `json:"maxBytesPerFile,omitempty" jsonschema:"minimum=0,maximum=4194304,default=32768"`
}

// FileReadResult is one file's text or the reason it could not be read.
type FileReadResult struct {
	Path   string              `json:"path" jsonschema_description:"The path as requested"`
	Result *ReadTextFileOutput `json:"result,omitempty" jsonschema_description:"The file's text when it could be read"`
	Error  string              `json:"error,omitempty" jsonschema_description:"Why the file could not be read"`
}

// ReadMultipleFilesOutput has one entry per requested path, in order.
type ReadMultipleFilesOutput struct {
	Files []FileReadResult `json:"files" jsonschema_description:"One entry per requested path in the same order"`
}

// ReadMultipleFiles reads each file like ReadTextFile (from the start, capped); one
// failure is reported in its entry and does not fail the others.
func (rs *Roots) ReadMultipleFiles(ctx context.Context, in ReadMultipleFilesInput) (ReadMultipleFilesOutput, error) {
	switch {
	case len(in.Paths) == 0:
		return ReadMultipleFilesOutput{}, fmt.Errorf("paths is empty: name at least one file")
	case len(in.Paths) > MaxMultipleFiles:
		return ReadMultipleFilesOutput{}, fmt.Errorf("%d paths given; at most %d per call", len(in.Paths), MaxMultipleFiles)
	case in.MaxBytesPerFile < 0 || in.MaxBytesPerFile > MaxReadBytes:
		return ReadMultipleFilesOutput{}, fmt.Errorf("maxBytesPerFile must be between 0 and %d", MaxReadBytes)
	}
	per := in.MaxBytesPerFile
	if per == 0 {
		per = DefaultMultipleFileBytes
	}
	out := ReadMultipleFilesOutput{Files: make([]FileReadResult, 0, len(in.Paths))}
	for _, p := range in.Paths {
		if err := ctx.Err(); err != nil {
			return ReadMultipleFilesOutput{}, err
		}
		r, err := rs.ReadTextFile(ctx, ReadTextFileInput{Path: p, MaxBytes: per})
		if err != nil {
			out.Files = append(out.Files, FileReadResult{Path: p, Error: err.Error()})
			continue
		}
		out.Files = append(out.Files, FileReadResult{Path: p, Result: &r})
	}
	return out, nil
}
